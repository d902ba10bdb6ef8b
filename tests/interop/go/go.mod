module acpinterop

go 1.26

require github.com/acp-codegen/acp-bindings-go v0.0.0

replace github.com/acp-codegen/acp-bindings-go => ../../../bindings/go
