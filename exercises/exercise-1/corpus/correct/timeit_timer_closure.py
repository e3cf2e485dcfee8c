# style: timeit.Timer(...).repeat(number=1) around a closure that calls and waits; the last
#   output kept in a dict
# expect: pass
import timeit


def synchronized_samples(fn, args, repeats):
    last = {}

    def one_call():
        last["out"] = fn(*args)
        last["out"].block_until_ready()

    timer = timeit.Timer(one_call)
    samples = timer.repeat(repeat=repeats, number=1)
    return last["out"], samples
