package llmstream

import (
	"reflect"
	"testing"
)

// Add sums every count, found by reflection, so a count added to Usage
// later cannot be left out of the sum.
func TestUsageAdd(t *testing.T) {
	var a, b Usage
	va, vb := reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem()
	for i := range va.NumField() {
		va.Field(i).SetInt(int64(i + 1))
		vb.Field(i).SetInt(int64(100 * (i + 1)))
	}
	a.Add(&b)
	a.Add(nil)
	for i := range va.NumField() {
		if got, want := va.Field(i).Int(), int64(101*(i+1)); got != want {
			t.Errorf("%s = %d after Add, want %d", va.Type().Field(i).Name, got, want)
		}
	}
}
