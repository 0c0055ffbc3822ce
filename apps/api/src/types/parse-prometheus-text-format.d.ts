declare module "parse-prometheus-text-format" {
  /** Metric families parsed from the Prometheus text exposition format. */
  export default function parsePrometheusTextFormat(text: string): {
    name: string;
    help: string;
    type: string;
    metrics: {
      labels?: Record<string, string>;
      value?: string;
      buckets?: Record<string, string>;
      count?: string;
      sum?: string;
    }[];
  }[];
}
