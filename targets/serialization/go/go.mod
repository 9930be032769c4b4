module github.com/webbench/webbench/targets/serialization/go

go 1.26

require github.com/mailru/easyjson v0.9.2

require github.com/josharian/intern v1.0.0 // indirect
