module counter

go 1.26
