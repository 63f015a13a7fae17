package main

import (
	"fmt"
	"strconv"
	"strings"
)

// intList is a flag of comma-separated positive integers in ascending
// order.
type intList []int

// String implements flag.Value.
func (l *intList) String() string {
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// Set implements flag.Value.
func (l *intList) Set(value string) error {
	var out intList
	for _, f := range strings.Split(value, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v <= 0 {
			return fmt.Errorf("%q is not a positive integer", f)
		}
		if len(out) > 0 && v <= out[len(out)-1] {
			return fmt.Errorf("%d does not come after %d: the list must ascend", v, out[len(out)-1])
		}
		out = append(out, v)
	}
	*l = out
	return nil
}
