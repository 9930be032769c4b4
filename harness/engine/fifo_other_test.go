//go:build !unix

package engine

import "errors"

func syscallMkfifo(string) error { return errors.New("no FIFOs on this system") }
