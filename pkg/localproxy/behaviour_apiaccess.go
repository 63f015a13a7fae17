package localproxy

import "github.com/kubectl-zoo/kubectl-zoo/pkg/translate"

// apiAccessFirst keeps the API-access ConfigMap of the namespace a pod or
// pod template is written into before the write goes upstream
// (apiaccess.go), and answers with a Status when it could not.
type apiAccessFirst struct{}

func (apiAccessFirst) before(p *Proxy, x *exchange) bool {
	return !p.ensureAPIAccess(x.w, x.r, x.u)
}

// podSpecRows are the rows of the kinds table with pod specs
// (translate.KindRule.HasPodSpecs, which allocates), found once. A rule
// that is no row (a custom resource's) has none.
var podSpecRows = func() map[*translate.KindRule]bool {
	rows := map[*translate.KindRule]bool{}
	for _, k := range translate.Kinds() {
		if k.HasPodSpecs() {
			rows[k] = true
		}
	}
	return rows
}()

// hasPodSpecs selects the rows with pod specs.
func hasPodSpecs(k *translate.KindRule) bool { return podSpecRows[k] }
