// Command ceiling is the fixed-response HTTP server the harness loads to
// measure the load generator's ceiling: it answers every request with the
// same 13-byte text, doing as little per request as a Go server can, so
// that what bounds its throughput is the load generator and the path to
// it, not the server. A target at or near this figure on the same cores
// and connections is measuring the generator.
//
// PROTOCOL says what it serves: http1 (the default) and https with
// valyala/fasthttp and a preallocated answer; h2 (TLS, ALPN h2) and h2c
// (cleartext, prior knowledge) with net/http, fasthttp having no HTTP/2.
// Over TLS it serves the certificate and key that TLS_CERT_FILE and
// TLS_KEY_FILE name.
package main

import (
	"crypto/tls"
	"log"
	"net/http"
	"os"

	"github.com/valyala/fasthttp"
)

var hello = []byte("Hello, World!")

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	cert, key := os.Getenv("TLS_CERT_FILE"), os.Getenv("TLS_KEY_FILE")
	proto := os.Getenv("PROTOCOL")
	log.Printf("runtime: ceiling server on :%s (%s)", port, proto)
	switch proto {
	case "h2", "h2c":
		s := &http.Server{Addr: ":" + port, Protocols: new(http.Protocols),
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = []string{"text/plain"}
				w.Write(hello)
			})}
		if proto == "h2c" {
			s.Protocols.SetUnencryptedHTTP2(true)
			log.Fatal(s.ListenAndServe())
		}
		s.Protocols.SetHTTP2(true)
		s.TLSConfig = &tls.Config{NextProtos: []string{"h2"}}
		log.Fatal(s.ListenAndServeTLS(cert, key))
	case "https":
		log.Fatal(server().ListenAndServeTLS(":"+port, cert, key))
	default:
		log.Fatal(server().ListenAndServe(":" + port))
	}
}

func server() *fasthttp.Server {
	return &fasthttp.Server{
		Name: "ceiling",
		Handler: func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("text/plain")
			ctx.SetBody(hello)
		},
	}
}
