"""Generated op wrappers and gradient bindings (see op_index.py). Do not edit."""
