// The project's tests wait with the public fixture, as users' tests do.
export { until } from '../testing/until.js';
