module workloadcheat

go 1.26
