// Command server is a test target whose work per request is fixed when it
// is built: each answer first hashes a 64-byte block rounds times, so that
// a commit changing rounds makes every request cost more or less CPU, as a
// change to a real server's code would.
package main

import (
	"crypto/sha256"
	"log"
	"net/http"
	"os"
)

// rounds is the work per request: the commits of a test change it.
const rounds = 200

func main() {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		sum := sha256.Sum256([]byte(r.URL.Path))
		for range rounds {
			sum = sha256.Sum256(sum[:])
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Sum", string('a'+sum[0]%26))
		w.Write([]byte("Hello, World!"))
	})
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	log.Fatal(http.ListenAndServe(":"+port, nil))
}
