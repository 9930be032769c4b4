// Command server is the {{.Name}} target: it answers the harness's
// plaintext and json scenarios with Go's net/http.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"runtime"
)

func main() {
	port := os.Getenv("PORT") // set by the harness
	if port == "" {
		port = "8080"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /plaintext", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "{{.Name}}")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("Hello, World!"))
	})
	mux.HandleFunc("GET /json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", "{{.Name}}")
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"message": "Hello, World!"})
	})
	// The harness records the runtime from this line.
	fmt.Printf("runtime: %s\n", runtime.Version())
	log.Fatal(http.ListenAndServe(":"+port, mux))
}
