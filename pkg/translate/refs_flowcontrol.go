package translate

import (
	"fmt"
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

// checkPriorityLevel refuses Exempt priority levels: their requests would
// bypass the shared cluster's fairness for every tenant.
func checkPriorityLevel(m *mapper, obj map[string]any) error {
	if str(child(obj, "spec"), "type") == "Exempt" {
		return forbidden(grPLC, str(child(obj, "metadata"), "name"),
			"tenants may not create Exempt priority levels: they would bypass the shared cluster's fairness")
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
