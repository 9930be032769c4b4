module github.com/webbench/webbench/targets/fastcgi/go-fcgi

go 1.26
