enum TestPlaceholder {}
