module dbcheat

go 1.26
