package translate

// SleepAction is how `kubectl zoo tenant sleep` stops the objects of a kind
// from running pods (KindRule.Sleep).
type SleepAction int

const (
	// SleepNone leaves the kind's objects alone.
	SleepNone SleepAction = iota
	// SleepScale sets the object's replicas to 0 through its scale
	// subresource, and wake sets them back.
	SleepScale
	// SleepSuspend sets the object's spec.suspend, and wake sets it back.
	SleepSuspend
)

// SleepKinds are the rows whose objects sleep scales down or suspends, in
// table order: the order sleep and wake visit them.
func SleepKinds() []*KindRule {
	var out []*KindRule
	for i := range kindTable {
		if kindTable[i].Sleep != SleepNone {
			out = append(out, &kindTable[i])
		}
	}
	return out
}
