// Command backend is a FastCGI responder written with Go's net/http/fcgi,
// answering /plaintext behind the nginx front.
package main

import (
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/fcgi"
	"os"
	"runtime"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "9000"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /plaintext", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("Hello, World!"))
	})
	l, err := net.Listen("tcp", ":"+port)
	if err != nil {
		log.Fatal(err)
	}
	// The harness reads this line to record the runtime version.
	fmt.Printf("runtime: %s\n", runtime.Version())
	log.Printf("FastCGI on :%s", port)
	log.Fatal(fcgi.Serve(l, mux))
}
