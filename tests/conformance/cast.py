"""CAST has no parameters (cast.cc:27-42: CastPrepare checks one input and one output)."""


def expected(op):
    return {}
