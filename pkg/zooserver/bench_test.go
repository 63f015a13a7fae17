package zooserver

import (
	"fmt"
	"runtime"
	"testing"

	"k8s.io/client-go/rest"
)

// BenchmarkProxyPerIdentity measures what one more identity costs a
// server: the translating proxy made on its first request (its caches start
// empty), as heap bytes retained per identity.
func BenchmarkProxyPerIdentity(b *testing.B) {
	ps := newProxies(1<<20, func(string) *rest.Config { return &rest.Config{Host: "https://upstream.invalid"} })
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := ps.get(identity(fmt.Sprintf("t%d", i%1000), fmt.Sprintf("user%d", i)), false, ps.generation()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(ps.len()), "retained-B/identity")
}
