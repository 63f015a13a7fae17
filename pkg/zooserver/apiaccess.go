package zooserver

import (
	"errors"
	"fmt"

	"k8s.io/apiserver/pkg/server/dynamiccertificates"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
)

// newAPIAccess builds what tenant workloads are given (Config.AdvertiseAddress
// and AdvertiseCAFile), or nil when the server advertises no address. The CA
// file is loaded now (a bad one fails the start) and followed live by
// Start, as the client CA file is.
func (s *Server) newAPIAccess() (*localproxy.APIAccess, error) {
	cfg := s.cfg
	if cfg.AdvertiseAddress == "" && cfg.AdvertiseCAFile == "" {
		return nil, nil
	}
	if cfg.AdvertiseAddress == "" || cfg.AdvertiseCAFile == "" {
		return nil, errors.New("an advertised address needs the CA bundle that verifies the server there, and the other way round")
	}
	ca, err := dynamiccertificates.NewDynamicCAContentFromFile("advertise-ca", cfg.AdvertiseCAFile)
	if err != nil {
		return nil, fmt.Errorf("advertised CA file: %w", err)
	}
	s.advertiseCA = ca
	return localproxy.NewAPIAccess(s.client, cfg.AdvertiseAddress, ca.CurrentCABundleContent)
}
