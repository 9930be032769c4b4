// Command flood is the program of the engine tests' container: "sleep"
// waits, "flood" prints without end, as a hostile service's command may.
package main

import (
	"bytes"
	"os"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "flood" {
		line := bytes.Repeat([]byte("y"), 1<<16)
		for {
			if _, err := os.Stdout.Write(line); err != nil {
				os.Exit(1)
			}
		}
	}
	for {
		time.Sleep(time.Hour)
	}
}
