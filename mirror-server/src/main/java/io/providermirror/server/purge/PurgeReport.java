package io.providermirror.server.purge;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a purge or a retention run removed (or, in a dry run, would remove): the cache keys of the files, and the
 * bytes of archives among them.
 */
public record PurgeReport(String subject, List<String> files, long archiveBytes, boolean dryRun) {

    public PurgeReport {
        files = List.copyOf(files);
    }

    public boolean empty() {
        return files.isEmpty();
    }

    /** One line: what went, or would go. */
    public String summary() {
        if (files.isEmpty()) {
            return "nothing of " + subject + " is in the cache";
        }
        return (dryRun ? "would remove " : "removed ") + files.size() + " files of " + subject + " (" + archiveBytes
                + " bytes of archives)";
    }

    /** The operator API's answer. */
    public Map<String, Object> toJson() {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("subject", subject);
        answer.put("dryRun", dryRun);
        answer.put("files", files);
        answer.put("archiveBytes", archiveBytes);
        answer.put("summary", summary());
        return answer;
    }
}
