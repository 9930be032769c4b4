// Command server is a deliberately wrong target: it answers the plaintext
// scenario without the comma, so verification must fail it.
package main

import (
	"log"
	"net/http"
)

func main() {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("Hello World"))
	})
	log.Fatal(http.ListenAndServe(":8080", nil))
}
