"""validate/rules layer."""
