module github.com/ordolabs/ordo

go 1.26.0
