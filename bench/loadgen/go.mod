module vskube-loadgen

go 1.24.0

require (
	golang.org/x/net v0.47.0
	golang.org/x/sys v0.38.0
)

require golang.org/x/text v0.31.0 // indirect
