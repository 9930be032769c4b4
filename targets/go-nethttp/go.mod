module github.com/webbench/webbench/targets/go-nethttp

go 1.26
