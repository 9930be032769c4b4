package results

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The geometry a trial's histogram may declare: what the open-loop
// generator writes (1 µs to 60 s at 3 digits), up to load.timeout's
// longest (an hour). A histogram's counts array grows with its geometry,
// not with its size on disk: a 60-byte string declaring 1…MaxInt64 at 5
// digits allocates 47 MB, so the header is read and bounded before
// anything is decoded. Within these bounds a histogram holds at most
// 23,552 counts (184 KiB).
const (
	MaxHistogramValue  = 3_600_000_000 // µs: one hour
	MaxHistogramDigits = 3
)

// ErrHistogramGeometry is a histogram whose header declares more than
// MaxHistogramValue or MaxHistogramDigits.
var ErrHistogramGeometry = errors.New("histogram geometry out of bounds")

// DecodeHistogram decodes a trial's histogram (HdrHistogram's V2
// compressed encoding, base64) once its header is within bounds.
func DecodeHistogram(encoded string) (*hdrhistogram.Histogram, error) {
	if err := checkGeometry(encoded); err != nil {
		return nil, err
	}
	return hdrhistogram.Decode([]byte(encoded))
}

// checkGeometry reads the header of an encoded histogram, inflating only
// its first 40 bytes, and refuses a geometry past the bounds.
func checkGeometry(encoded string) error {
	raw, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return err
	}
	if len(raw) < 8 {
		return fmt.Errorf("histogram of %d bytes: no header", len(raw))
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		return err
	}
	defer z.Close()
	var h struct {
		Cookie, Payload, Offset, Digits int32
		Lowest, Highest                 int64
	}
	if err := binary.Read(io.LimitReader(z, 32), binary.BigEndian, &h); err != nil {
		return fmt.Errorf("histogram header: %w", err)
	}
	if h.Digits < 0 || h.Digits > MaxHistogramDigits || h.Highest > MaxHistogramValue || h.Lowest > h.Highest {
		return fmt.Errorf("%w: %d…%d at %d digits (at most %d µs at %d digits)", ErrHistogramGeometry,
			h.Lowest, h.Highest, h.Digits, int64(MaxHistogramValue), MaxHistogramDigits)
	}
	return nil
}
