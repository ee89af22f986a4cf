"""API layer: typed models of the objects kqctl understands, quantities, selectors and version conversion."""
