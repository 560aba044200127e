"""Runs a command with a time limit and, when it overruns, says where it was stuck: the threads' stacks (gdb, when the
machine has it) go into the failure's message before the process is killed. A hang in CI is then a stack to read, not
a bare timeout."""
import shutil
import subprocess


class Hung(AssertionError):
    pass


def stacks(pid):
    """Every thread's backtrace of a running process, or why there are none."""
    gdb = shutil.which("gdb")
    if not gdb:
        return "(no gdb on this machine: no stacks)"
    try:
        done = subprocess.run([gdb, "-p", str(pid), "-batch", "-nx", "-ex", "set pagination off", "-ex", "thread apply all bt 40"],
                              capture_output=True, text=True, timeout=90)
    except subprocess.TimeoutExpired:
        return "(gdb did not answer within 90 s)"
    lines = [line for line in done.stdout.splitlines() if line.startswith(("Thread ", "#"))]
    return "\n".join(lines) or done.stderr[-2000:]


def run(args, timeout, input=None, **kwargs):
    """`subprocess.run(args, capture_output=True, timeout=timeout, **kwargs)`, but an overrun raises `Hung` with the
    command, its output so far and its threads' stacks."""
    with subprocess.Popen(args, stdin=subprocess.PIPE if input is not None else None, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, **kwargs) as process:
        try:
            stdout, stderr = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            where = stacks(process.pid)
            process.kill()
            stdout, stderr = process.communicate()
            if isinstance(stderr, bytes):
                stderr = stderr.decode(errors="replace")
            raise Hung(f"{' '.join(map(str, args))} did not end within {timeout} s\n--- its stderr ---\n{stderr[-3000:]}\n"
                       f"--- its threads ---\n{where}") from None
        return subprocess.CompletedProcess(args, process.returncode, stdout, stderr)
