package translate

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// flowSchemaSubjects maps FlowSchema spec.rules[].subjects: users and groups
// to the tenant's identities, ServiceAccounts to its namespaces.
func flowSchemaSubjects(m *mapper, rule map[string]any) error {
	subjects, ok := rule["subjects"].([]any)
	if !ok {
		return nil
	}
	out := subjects[:0]
	for _, s := range subjects {
		subj, ok := s.(map[string]any)
		if !ok {
			continue
		}
		var err error
		keep := true
		switch str(subj, "kind") {
		case "User":
			err = m.mapString(child(subj, "user"), "name", m.subjectUser)
			keep = str(child(subj, "user"), "name") != ""
		case "Group":
			err = m.mapString(child(subj, "group"), "name", m.subjectGroup)
			keep = str(child(subj, "group"), "name") != ""
		case "ServiceAccount":
			sa := child(subj, "serviceAccount")
			if str(sa, "namespace") == "*" {
				return forbidden(grPLC, "", "FlowSchema subjects may not name ServiceAccounts of every namespace")
			}
			err = m.mapString(sa, "namespace", m.namespace)
			keep = str(sa, "namespace") != ""
		}
		if err != nil {
			return err
		}
		if keep || m.in {
			out = append(out, subj)
		}
	}
	rule["subjects"] = out
	return nil
}

// flowSchemaNamespaces maps resourceRules[].namespaces ("*" stays: the
// subjects already confine the rule to the tenant).
func flowSchemaNamespaces(m *mapper, rule map[string]any) error {
	return m.mapStrings(rule, "namespaces", func(ns string) (string, error) {
		if ns == "*" {
			return ns, nil
		}
		return m.namespace(ns)
	})
}

// flowSchemaRefs are the references of FlowSchema.
var flowSchemaRefs = []Ref{
	clusterNameRef("spec.priorityLevelConfiguration", "name", grPLC),
	withField(atPath(TargetIdentity, "spec.rules[]", flowSchemaSubjects), "spec.rules[].subjects"),
	withField(atPath(TargetNamespace, "spec.rules[].resourceRules[]", flowSchemaNamespaces), "spec.rules[].resourceRules[].namespaces"),
	apiGroupsRef("spec.rules[].resourceRules[]", "apiGroups"),
}

// checkPriorityLevel refuses Exempt priority levels (their requests would
// bypass the shared cluster's fairness for every tenant) and more than
// TenantMaxConcurrencyShares shares; an explicit null would let the API
// server default them to 30.
func checkPriorityLevel(m *mapper, obj map[string]any) error {
	name := str(child(obj, "metadata"), "name")
	spec := child(obj, "spec")
	if str(spec, "type") == "Exempt" || spec["exempt"] != nil {
		return forbidden(grPLC, name,
			"tenants may not create Exempt priority levels: they would bypass the shared cluster's fairness")
	}
	limited := child(spec, "limited")
	for _, key := range []string{"nominalConcurrencyShares", "assuredConcurrencyShares"} {
		v, present := limited[key]
		if !present {
			continue
		}
		if n, ok := numberValue(v); v == nil || (ok && n > TenantMaxConcurrencyShares) {
			return forbidden(grPLC, name, fmt.Sprintf(
				"a tenant's priority level may hold at most %d concurrency shares (spec.limited.%s): the shared API server divides its concurrency among every level by their shares",
				TenantMaxConcurrencyShares, key))
		}
	}
	return nil
}

// completePriorityLevel gives a limited priority level that names no shares
// TenantMaxConcurrencyShares, where the API server would default it to 30.
func completePriorityLevel(_ *mapper, obj map[string]any) error {
	limited, ok := child(obj, "spec")["limited"].(map[string]any)
	if !ok {
		return nil
	}
	if _, present := limited["nominalConcurrencyShares"]; !present {
		if _, old := limited["assuredConcurrencyShares"]; !old {
			limited["nominalConcurrencyShares"] = json.Number(strconv.Itoa(TenantMaxConcurrencyShares))
		}
	}
	return nil
}

// checkCSR refuses CertificateSigningRequests for the cluster's own signers.
func checkCSR(m *mapper, obj map[string]any) error {
	signer := str(child(obj, "spec"), "signerName")
	if signer == "" || IsBuiltinGroup(domainOf(signer)) {
		return forbidden(grCSR, str(child(obj, "metadata"), "name"),
			fmt.Sprintf("tenants may not request certificates from the shared cluster's signer %q", signer))
	}
	return nil
}

func domainOf(signer string) string {
	for i := 0; i < len(signer); i++ {
		if signer[i] == '/' {
			return signer[:i]
		}
	}
	return signer
}

// TenantMinMatchingPrecedence is the lowest matchingPrecedence a tenant's
// FlowSchema may have (the API's default, 1000, is allowed). A tenant's
// FlowSchemas only match its own identities anyway (flowSchemaSubjects); the
// floor keeps every FlowSchema a platform writes below it (the suggested
// defaults but service-accounts, global-default and catch-all are) ahead of
// them, so that a tenant cannot escape a FlowSchema the platform wrote for
// tenants' requests.
const TenantMinMatchingPrecedence = 1000

// TenantMaxConcurrencyShares caps the nominalConcurrencyShares of one
// tenant priority level: half of global-default's 20, the level every
// tenant's requests fall to by default. The API server divides its
// concurrency among all priority levels by their shares, so each tenant
// level takes a little from every other (the proxy also bounds how many a
// tenant may have, docs/security.md "Flow control").
const TenantMaxConcurrencyShares = 10

// checkFlowSchema refuses a matchingPrecedence below the tenants' floor.
func checkFlowSchema(m *mapper, obj map[string]any) error {
	p, ok := child(obj, "spec")["matchingPrecedence"]
	if !ok || p == nil {
		return nil
	}
	if n, ok := numberValue(p); ok && n != 0 && n < TenantMinMatchingPrecedence { // 0 is the API's default, 1000
		return forbidden(grFlowSchema, str(child(obj, "metadata"), "name"),
			fmt.Sprintf("a tenant's FlowSchema needs a matchingPrecedence of at least %d: the shared cluster's own FlowSchemas come first", TenantMinMatchingPrecedence))
	}
	return nil
}
