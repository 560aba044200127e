import CKernels

/// The encoder's own kernels split a batch over a team of helper threads at normal priority.
public enum KernelThreads {
    /// From now on, the calling thread runs its kernels alone, without the team: for background
    /// work of the lowest priority (the summaries' niced thread), whose jobs on the shared helpers
    /// would take the cores from a search running beside them.
    public static func runAloneOnThisThread() {
        ms_team_serial_on_this_thread(1)
    }

    /// Whether the calling thread runs alone (`runAloneOnThisThread`): its other work should too.
    public static var runsAloneOnThisThread: Bool {
        ms_team_is_serial_on_this_thread() != 0
    }
}
