package io.providermirror.testkit;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Ends every test run with the list of tests that were skipped and why (a missing {@code terraform},
 * Chromium, Prometheus...), so a skipped end-to-end test cannot hide in thousands of lines of build output.
 * Registered for every module whose tests use the kit, through {@code META-INF/services}.
 */
public final class SkippedTestsSummary implements TestExecutionListener {

    private final List<String> skipped = new ArrayList<>();

    @Override
    public synchronized void executionSkipped(TestIdentifier test, String reason) {
        skipped.add(name(test) + ": " + shortened(reason));
    }

    @Override
    public synchronized void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            String reason = result.getThrowable().map(Throwable::getMessage).orElse("aborted");
            skipped.add(name(test) + ": " + shortened(reason));
        }
    }

    @Override
    public synchronized void testPlanExecutionFinished(TestPlan plan) {
        if (skipped.isEmpty()) {
            return;
        }
        PrintStream out = System.out;
        out.println();
        out.println("======== " + skipped.size() + " test(s) SKIPPED in this run, and why ========");
        skipped.forEach(line -> out.println("  " + line));
        out.println("======== (.ci/run installs what they need; see README, Tests) ========");
        skipped.clear();
    }

    private static String shortened(String reason) {
        String text = String.valueOf(reason);
        return text.length() <= 160 ? text : text.substring(0, 157) + "...";
    }

    private static String name(TestIdentifier test) {
        if (test.getSource().orElse(null) instanceof MethodSource method) {
            String className = method.getClassName();
            return className.substring(className.lastIndexOf('.') + 1) + "." + method.getMethodName();
        }
        return test.getDisplayName();
    }
}
