module spin

go 1.26
