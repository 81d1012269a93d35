package wftest

import (
	"go.temporal.io/sdk/converter"
)

func ConverterFor() converter.DataConverter { return converter.GetDefaultDataConverter() }
