package upstream

import "time"

// EnforcementTimeout bounds how long CreateTenant waits for the API server to
// pick up the tenant's RBAC and admission binding.
const EnforcementTimeout = 30 * time.Second
