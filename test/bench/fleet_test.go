package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIntList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want intList
		err  string
	}{
		{"1000,5000,10000", intList{1000, 5000, 10000}, ""},
		{" 200 , 400", intList{200, 400}, ""},
		{"5,3", nil, "must ascend"},
		{"5,5", nil, "must ascend"},
		{"0", nil, "not a positive integer"},
		{"1,x", nil, "not a positive integer"},
		{"", nil, "not a positive integer"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			var l intList
			err := l.Set(tc.in)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, l)
		})
	}
}

// TestFleetShares checks how the fleet spreads w watches over its tenants
// and how many ConfigMap watches of the written namespace a tenant holds.
func TestFleetShares(t *testing.T) {
	for _, tc := range []struct {
		name            string
		w, tenants      int
		cmOfFirstTenant int
	}{
		{"1 000 of 200", 1000, 200, 1},
		{"5 000 of 200", 5000, 200, 2},
		{"10 000 of 200", 10000, 200, 4},
		{"uneven", 7, 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			total := 0
			for i := range tc.tenants {
				total += fleetShare(tc.w, tc.tenants, i)
			}
			assert.Equal(t, tc.w, total)
			cm := 0
			for k := range fleetShare(tc.w, tc.tenants, 0) {
				if kind, ns := fleetWatchOf(k); kind == fleetConfigMaps && ns == fleetWriteNamespace {
					cm++
				}
			}
			assert.Equal(t, tc.cmOfFirstTenant, cm)
		})
	}
}
