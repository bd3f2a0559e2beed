"""Built-in playing strategies (policy kind + parameter vector)."""
