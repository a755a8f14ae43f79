"""A permissive no-op object: every call, attribute and item is itself."""


class Anything(object):
    def __call__(self, *args, **kwargs):
        return Anything()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Anything()

    def __getitem__(self, key):
        return Anything()

    def __setitem__(self, key, value):
        pass

    def __iter__(self):
        # Supports `fig, ax = plt.subplots(...)`.
        return iter((Anything(), Anything()))

    def __bool__(self):
        return False
