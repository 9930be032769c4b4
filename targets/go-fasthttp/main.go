// Command server answers the harness's plaintext and json scenarios with
// valyala/fasthttp, the way its users write a small service.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"runtime"

	"github.com/valyala/fasthttp"
)

type message struct {
	Message string `json:"message"`
}

func handler(ctx *fasthttp.RequestCtx) {
	switch string(ctx.Path()) {
	case "/plaintext":
		ctx.SetContentType("text/plain; charset=utf-8")
		ctx.WriteString("Hello, World!")
	case "/json":
		ctx.SetContentType("application/json")
		json.NewEncoder(ctx).Encode(message{Message: "Hello, World!"})
	default:
		ctx.Error("not found", fasthttp.StatusNotFound)
	}
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	// The harness reads this line to record the runtime version.
	fmt.Printf("runtime: %s\n", runtime.Version())
	log.Printf("listening on :%s with GOMAXPROCS=%d", port, runtime.GOMAXPROCS(0))
	s := &fasthttp.Server{Handler: handler, Name: "go-fasthttp"}
	// HTTPS when given a certificate: fasthttp speaks HTTP/1.1 only.
	if cert := os.Getenv("TLS_CERT_FILE"); cert != "" {
		log.Fatal(s.ListenAndServeTLS(":"+port, cert, os.Getenv("TLS_KEY_FILE")))
	}
	log.Fatal(s.ListenAndServe(":" + port))
}
