package localproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
)

// nsList is the part of a namespace list the proxy reads.
type nsList struct {
	Metadata struct {
		ResourceVersion string `json:"resourceVersion"`
		Continue        string `json:"continue"`
	} `json:"metadata"`
	Items []nsItem `json:"items"`
}

type nsItem struct {
	Metadata struct {
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
}

// tenantNamespaces lists the tenant's upstream namespaces, sorted, and the
// resourceVersion of the list. It uses the caller's own identity: a tenant
// user who is not an admin may not list namespaces upstream, yet its
// all-namespaces requests are fanned out over them. With Config.Direct it
// is the tenant's, which may not (direct.go).
//
// With a namespace index (Config.Namespaces) it asks the index, and the
// upstream only when the index cannot answer (namespace_index.go).
func (p *Proxy) tenantNamespaces(ctx context.Context) ([]string, string, error) {
	if p.nsIndex != nil {
		if nss, rv, ok := p.nsIndex.Namespaces(ctx, p.tenant.Name()); ok {
			names := make([]string, 0, len(nss))
			for _, ns := range nss {
				if p.tenant.Owns(ns.Name) {
					names = append(names, ns.Name)
				}
			}
			return names, rv, nil
		}
	}
	q := url.Values{"labelSelector": {p.tr.TenantSelector()}}
	var names []string
	rv := ""
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.upstreamURL("/api/v1/namespaces", q).String(), nil)
		if err != nil {
			return nil, "", err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := p.own.Do(req)
		if err != nil {
			return nil, "", err
		}
		if p.cfg.Direct && resp.StatusCode == http.StatusForbidden {
			resp.Body.Close()
			return nil, "", p.directNamespacesError() // direct.go
		}
		var list nsList
		err = decodeResponse(resp, &list)
		if err != nil {
			return nil, "", fmt.Errorf("listing the tenant's namespaces: %w", err)
		}
		if rv == "" {
			rv = list.Metadata.ResourceVersion
		}
		for _, it := range list.Items {
			if p.tenant.Owns(it.Metadata.Name) {
				names = append(names, it.Metadata.Name)
			}
		}
		if list.Metadata.Continue == "" {
			break
		}
		q.Set("continue", list.Metadata.Continue)
	}
	sort.Strings(names)
	return names, rv, nil
}

// namespaceGoing reports whether the upstream namespace ns is being deleted
// or gone, read with the proxy's own identity (false when it cannot tell).
func (p *Proxy) namespaceGoing(ctx context.Context, ns string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.upstreamURL("/api/v1/namespaces/"+url.PathEscape(ns), nil).String(), nil)
	if err != nil {
		return false
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.own.Do(req)
	if err != nil {
		return false
	}
	if resp.StatusCode == http.StatusNotFound {
		resp.Body.Close()
		return true
	}
	var got struct {
		Metadata struct {
			DeletionTimestamp *string `json:"deletionTimestamp"`
		} `json:"metadata"`
	}
	return decodeResponse(resp, &got) == nil && got.Metadata.DeletionTimestamp != nil
}

// decodeResponse decodes a 200 JSON answer into v and closes the body.
func decodeResponse(resp *http.Response, v any) error {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("upstream answered %s: %s", resp.Status, b)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("decoding upstream answer: %w", err)
	}
	return nil
}
