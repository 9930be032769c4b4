// Package codecheck holds tests of the harness's source itself, such as the
// limit on the length of its functions; it has no code of its own.
package codecheck
