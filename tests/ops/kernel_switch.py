"""A pytest fixture that runs every test of a module once per CPU kernel of a runtime switch
(the portable one, and the AVX-512 one where this CPU has it), restoring the switch after."""

import pytest


def kernel_switch(get, set_on, fast: str, portable: str):
    """An autouse fixture over [portable] + [fast] (when get() says the fast kernel is on);
    set_on(bool) switches it and returns whether it is on."""
    names = [portable] + ([fast] if get() else [])

    @pytest.fixture(autouse=True, params=names)
    def kernel(request):
        before = get()
        on = request.param == fast
        assert set_on(on) == on
        yield request.param
        set_on(before)

    return kernel
