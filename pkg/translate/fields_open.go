package translate

// openFieldRules are reference-like fields that reach outside the tenant
// and that nothing holds yet: TestSchemaWalk prints them, docs/kinds.md
// lists them. Each says what a tenant can do with it; the work that closes
// one replaces it with a Ref or a rule of its class. On the pinned version
// there is none: the last ones, storage the machines mount and ingress
// hosts, are volume_sources.go and refs_ingress.go.
var openFieldRules []FieldRule
