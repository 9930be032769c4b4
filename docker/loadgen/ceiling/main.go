// Command ceiling is the fixed-response HTTP server the harness loads to
// measure the load generator's ceiling: it answers every request with the
// same 13-byte text, doing as little per request as a Go server can
// (valyala/fasthttp, preallocated answer), so that what bounds its
// throughput is the load generator and the path to it, not the server. A
// target at or near this figure on the same cores and connections is
// measuring bombardier.
package main

import (
	"log"
	"os"

	"github.com/valyala/fasthttp"
)

var hello = []byte("Hello, World!")

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	s := &fasthttp.Server{
		Name: "ceiling",
		Handler: func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("text/plain")
			ctx.SetBody(hello)
		},
	}
	log.Printf("runtime: ceiling server on :%s", port)
	log.Fatal(s.ListenAndServe(":" + port))
}
