// Command server answers the harness's scenarios with valyala/fasthttp,
// the way its users write a small service: plaintext and json; json
// gzip-compressed when the request accepts gzip (compression); the files
// under /srv/static through fasthttp.FS (static-*); and /compute.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"
)

type message struct {
	Message string `json:"message"`
}

type result struct {
	Result int64 `json:"result"`
}

// files serves the static scenarios' files, written by the Dockerfile, as
// they are (fasthttp.FS compresses nothing unless told).
var files = (&fasthttp.FS{Root: "/srv/static", PathRewrite: fasthttp.NewPathSlashesStripper(1)}).NewRequestHandler()

func handler(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	switch {
	case path == "/plaintext":
		ctx.SetContentType("text/plain; charset=utf-8")
		ctx.WriteString("Hello, World!")
	case path == "/json":
		ctx.SetContentType("application/json")
		json.NewEncoder(ctx).Encode(message{Message: "Hello, World!"})
		// fasthttp's own compression skips bodies under 200 bytes, and
		// this one is 28: compressed here instead, when asked.
		if ctx.Request.Header.HasAcceptEncoding("gzip") {
			ctx.Response.Header.Set("Content-Encoding", "gzip")
			ctx.Response.Header.Set("Vary", "Accept-Encoding")
			ctx.SetBody(fasthttp.AppendGzipBytes(nil, ctx.Response.Body()))
		}
	case strings.HasPrefix(path, "/static/"):
		files(ctx)
		if ctx.Response.StatusCode() == fasthttp.StatusOK {
			ctx.SetContentType("application/octet-stream")
		}
	case path == "/compute":
		a, errA := strconv.ParseInt(string(ctx.QueryArgs().Peek("a")), 10, 64)
		b, errB := strconv.ParseInt(string(ctx.QueryArgs().Peek("b")), 10, 64)
		if errA != nil || errB != nil {
			ctx.Error("a and b must be integers", fasthttp.StatusBadRequest)
			return
		}
		ctx.SetContentType("application/json")
		json.NewEncoder(ctx).Encode(result{Result: a*b + a - b})
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
