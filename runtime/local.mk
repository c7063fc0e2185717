# runtime/
