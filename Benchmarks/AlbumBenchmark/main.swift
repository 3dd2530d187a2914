print("album-benchmark: not written yet")
