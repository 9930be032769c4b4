module misbehave

go 1.26
