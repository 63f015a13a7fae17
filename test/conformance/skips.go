package main

// skipEntry is a group of specs `make conformance` does not run, with why.
type skipEntry struct {
	// Pattern is a regular expression on the spec's full name.
	Pattern string `json:"pattern"`
	Reason  string `json:"reason"`
}

// kwokSkips are the specs that cannot pass on a kwok node in either run: they
// need a container that really runs its image (the images cannot even be
// pulled here), so they fail directly and through the proxy alike and would
// only cost their timeouts.
var kwokSkips = []skipEntry{}
