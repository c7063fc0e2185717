# catalog/
