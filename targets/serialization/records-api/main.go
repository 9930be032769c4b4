// Command records-api is the upstream of study 002: for GET /?n=N it
// returns a JSON array of N records {"Id":"id_<int>","Name":"name_<int>",
// "Time":<unix>}, fresh random numbers each time, written with fasthttp.
package main

import (
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
)

// maxRecords bounds one answer so a typo cannot exhaust memory.
const maxRecords = 100_000

func handler(ctx *fasthttp.RequestCtx) {
	n, err := strconv.Atoi(string(ctx.QueryArgs().Peek("n")))
	if err != nil || n < 0 || n > maxRecords {
		ctx.Error("n must be an integer from 0 to 100000", fasthttp.StatusBadRequest)
		return
	}
	now := time.Now().Unix()
	b := make([]byte, 0, 64*n+2)
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"Id":"id_`...)
		b = strconv.AppendUint(b, rand.Uint64()>>1, 10)
		b = append(b, `","Name":"name_`...)
		b = strconv.AppendUint(b, rand.Uint64()>>1, 10)
		b = append(b, `","Time":`...)
		b = strconv.AppendInt(b, now, 10)
		b = append(b, '}')
	}
	b = append(b, ']')
	ctx.SetContentType("application/json")
	ctx.SetBody(b)
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	// The harness reads this line to record the runtime version.
	fmt.Printf("runtime: %s\n", runtime.Version())
	log.Printf("records API on :%s", port)
	s := &fasthttp.Server{Handler: handler, Name: "records-api"}
	log.Fatal(s.ListenAndServe(":" + port))
}
