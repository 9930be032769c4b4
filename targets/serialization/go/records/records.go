// Package records holds the record type of study 002 and its easyjson code.
package records

// Record is one element of the upstream's answer.
type Record struct {
	Id   string
	Name string
	Time int64
}

// Records is decoded and encoded without reflection by the easyjson code in
// records_easyjson.go, generated from this file with
// `go run github.com/mailru/easyjson/easyjson@v0.9.2 records.go` in this folder.
//
//easyjson:json
type Records []Record
