module wrongbody

go 1.26
