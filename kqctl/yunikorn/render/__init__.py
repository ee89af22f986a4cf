"""Tables and json/yaml documents for YuniKorn's simulate, explain, audit and validate reports."""
